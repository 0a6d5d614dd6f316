//! [`classify`]: a whole driver log (and optionally event-log lines) plus the checkpoint's
//! [`TrialContext`] in, one [`Classification`] out.
//!
//! `classify` is exactly "feed every line to a [`Watcher`], then `finish`": a trial that
//! watches a running driver and `rehearse classify LOG` take the same code path. What a
//! progress report or a failure proves is decided in `judge.rs`; this file only adds what a
//! whole log knows that a live trial does not (see [`CompleteLog`]): a failure after a proven
//! resume, and whether the log holds more than one run or query ([`SeveralRuns`]).

use super::evidence::dedup_keep_order;
use super::scan::parse_pretty_id;
use super::watch::{Ended, Watcher};
use super::{Classification, Exercised, QueryRuns, SeveralRuns, TrialContext, Verdict};

/// Classifies a finished restart from its driver log lines (stderr and stdout, in any
/// interleaving) and, optionally, the event log's lines. See [`CompleteLog`] for how a
/// failure after a proven resume is judged.
pub fn classify<'a, L, E>(driver_log: L, event_log: E, ctx: &TrialContext) -> Classification
where
    L: IntoIterator<Item = &'a str>,
    E: IntoIterator<Item = &'a str>,
{
    let mut log = CompleteLog::new(ctx.clone());
    // Every line, also after the verdict is final: whether the log holds a later run is
    // known only at its end.
    for line in driver_log {
        log.push_line(line);
    }
    for line in event_log {
        if log.push_event(line) {
            break;
        }
    }
    log.finish()
}

/// A whole log read after the fact (`rehearse classify`), as opposed to a live trial, which
/// stops the driver at the first certain verdict.
///
/// A [`Watcher`] reads until its first certain verdict. When that is `resumed`, the rest of
/// the log is still read: if the same run later fails for certain (a later batch reading past
/// Kafka's end, a state error on a later batch…), the failure is the verdict, with the resume
/// as evidence — a query that resumed and then died is not a safe restart. Later progress
/// reports are read by a fresh watcher each time, so they never end the search.
///
/// Every line is also counted ([`Census`]): a log of two runs concatenated, two drivers writing
/// one file, or two queries is said so ([`Classification::several_runs`]), with the run the
/// verdict judged.
pub struct CompleteLog {
    ctx: TrialContext,
    first: Watcher,
    after: Option<Watcher>,
    resumed: Option<Classification>,
    resumed_run: Option<String>,
    decided: Option<Classification>,
    /// runId of the run the decided verdict judged.
    decided_run: Option<String>,
    census: Census,
}

/// At most this many query ids, and runs per query, are kept for the report.
const MAX_LISTED: usize = 16;

/// What a whole log holds: driver starts, query starts with their runs, interleaving. Counted
/// from the raw line by substring (pattern and JSON layouts alike), a few `contains` per line.
#[derive(Debug, Default)]
struct Census {
    spark_starts: usize,
    queries: Vec<QueryRuns>,
    /// Every run started (bounded): its runId, the index of its query, and how many driver
    /// starts had been seen when it started.
    runs: Vec<(String, usize, usize)>,
    interleaved: bool,
}

impl Census {
    fn see_line(&mut self, line: &str) {
        if line.contains("Running Spark version") {
            self.spark_starts += 1;
            return;
        }
        // MicroBatchExecution: "Starting $prettyIdString. Use $checkpointRoot to store the
        // query checkpoint." (StreamExecution.scala, 2.1–4.x)
        if let Some(at) = line.find("Starting ") {
            let rest = &line[at + "Starting ".len()..];
            if rest.contains("to store the query checkpoint") {
                if let (Some(id), run) = parse_pretty_id(rest) {
                    self.started(id, run);
                    return;
                }
            }
        }
        if !self.runs.is_empty() && !self.interleaved {
            if let Some(run) = mentioned_run(line) {
                self.mentioned(&run);
            }
        }
    }

    /// A `QueryStartedEvent` (or a progress event) of the event log.
    fn see_event(&mut self, line: &str) {
        if !line.contains("StreamingQueryListener$Query") {
            return;
        }
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line.trim()) else {
            return;
        };
        let field = |k: &str| {
            v.get(k)
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
        };
        if line.contains("QueryStartedEvent") {
            if let Some(id) = field("id") {
                self.started(id, field("runId"));
            }
        }
    }

    fn started(&mut self, id: String, run: Option<String>) {
        let at = match self.queries.iter().position(|q| q.id == id) {
            Some(at) => Some(at),
            None if self.queries.len() < MAX_LISTED => {
                self.queries.push(QueryRuns {
                    id,
                    runs: Vec::new(),
                });
                Some(self.queries.len() - 1)
            }
            None => None,
        };
        if let (Some(at), Some(run)) = (at, run) {
            let runs = &mut self.queries[at].runs;
            if !runs.contains(&run) && runs.len() < MAX_LISTED {
                runs.push(run.clone());
            }
            if self.runs.len() < MAX_LISTED * MAX_LISTED && !self.runs.iter().any(|r| r.0 == run) {
                self.runs.push((run, at, self.spark_starts));
            }
        }
    }

    /// A line naming `run` after a later driver started, or after its query started again:
    /// an earlier run still writing, so two runs wrote this file at once. (Lines of two
    /// queries of one driver mix as a matter of course.)
    fn mentioned(&mut self, run: &str) {
        let Some(&(_, query, driver)) = self.runs.iter().find(|r| r.0 == run) else {
            return;
        };
        let later_start_of_its_query =
            self.queries[query].runs.last().map(String::as_str) != Some(run);
        if driver < self.spark_starts || later_start_of_its_query {
            self.interleaved = true;
        }
    }

    /// The most runs one query started with.
    fn runs(&self) -> usize {
        self.queries.iter().map(|q| q.runs.len()).max().unwrap_or(0)
    }

    /// The census as the report says it, when the log holds more than one run or query.
    fn several(&self, ctx: &TrialContext, judged_run: Option<String>) -> Option<SeveralRuns> {
        let runs = self.runs();
        if self.spark_starts < 2 && runs < 2 && self.queries.len() < 2 {
            return None;
        }
        let mut what = Vec::new();
        if self.spark_starts > 1 {
            what.push(format!(
                "Spark's driver started {} times",
                self.spark_starts
            ));
        }
        let listed: Vec<String> = self
            .queries
            .iter()
            .map(|q| match q.runs.as_slice() {
                [] => format!("query {}", q.id),
                [one] => format!("query {} as run {one}", q.id),
                many => format!("query {} as runs {}", q.id, many.join(", ")),
            })
            .collect();
        if !listed.is_empty() {
            what.push(format!("{} started", listed.join("; ")));
        }
        let how = if self.interleaved {
            "interleaved: a line of an earlier run comes after a later run started, so two drivers wrote this file at once"
        } else if self.spark_starts > 1 || runs > 1 {
            "one after the other (logs concatenated, or a restart in the same file)"
        } else {
            "one driver running several queries"
        };
        let whose = match (&ctx.query_id, &judged_run) {
            (Some(q), Some(r)) => format!("the verdict judges run {r} of query {q}, the checkpoint's"),
            (Some(q), None) => format!("the verdict judges query {q}, the checkpoint's"),
            (None, Some(r)) => format!("the verdict judges run {r}, the run started last that decided it; give --checkpoint so the checkpoint's query is the one judged"),
            (None, None) => "the verdict judges the run started last; give --checkpoint so the checkpoint's query is the one judged".to_owned(),
        };
        let count = if runs > 1 || self.spark_starts > 1 {
            format!("{} runs", runs.max(self.spark_starts))
        } else {
            format!("{} queries", self.queries.len())
        };
        let note = format!(
            "this log holds {count}, {how} ({}): {whose}; to judge another run, classify its own log",
            what.join("; ")
        );
        Some(SeveralRuns {
            spark_starts: self.spark_starts,
            queries: self.queries.clone(),
            interleaved: self.interleaved,
            judged_run,
            note,
        })
    }
}

/// The runId a line names: `[id = …, runId = …]` in a record, or `"runId" : "…"` in a
/// progress report.
fn mentioned_run(line: &str) -> Option<String> {
    if line.contains("runId = ") {
        return parse_pretty_id(line).1;
    }
    let at = line.find("\"runId\"")?;
    let rest = line[at + 7..].trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let end = rest.find('"')?;
    Some(rest[..end].to_owned()).filter(|r| !r.is_empty())
}

impl CompleteLog {
    /// Starts reading a log of a restart of the checkpoint described by `ctx`.
    pub fn new(ctx: TrialContext) -> CompleteLog {
        CompleteLog {
            first: Watcher::new(ctx.clone()),
            ctx,
            after: None,
            resumed: None,
            resumed_run: None,
            decided: None,
            decided_run: None,
            census: Census::default(),
        }
    }

    /// Reads one driver-log line; `true` once the verdict is final. Feed the rest of the log
    /// anyway (only counted then, cheaply): whether it holds a later run is known at its end.
    pub fn push_line(&mut self, line: &str) -> bool {
        self.census.see_line(line);
        self.push(|w| w.push_line(line))
    }

    /// Reads one event-log line; `true` once the verdict is final.
    pub fn push_event(&mut self, line: &str) -> bool {
        self.census.see_event(line);
        self.push(|w| w.push_event(line))
    }

    /// Whether the verdict is final (the rest of the log is only counted).
    pub fn is_decided(&self) -> bool {
        self.decided.is_some()
    }

    fn push(&mut self, feed: impl FnMut(&mut Watcher) -> Option<Classification>) -> bool {
        if self.decided.is_some() {
            return true;
        }
        let decided = self.judge(feed);
        if decided && self.decided_run.is_none() {
            // The run the evidence names last (a failure's "Query [id = …, runId = …]
            // terminated" header; in an interleaved log it may be an earlier run's), else the
            // run followed now.
            self.decided_run = self
                .decided
                .as_ref()
                .and_then(|c| c.evidence.iter().rev().find_map(|e| mentioned_run(e)))
                .or_else(|| self.latest_run());
        }
        decided
    }

    /// runId of the run the watchers follow now.
    fn latest_run(&self) -> Option<String> {
        self.after
            .as_ref()
            .and_then(Watcher::current_run)
            .or(self.first.current_run())
            .or(self.resumed_run.as_deref())
            .map(str::to_owned)
    }

    fn judge(&mut self, mut feed: impl FnMut(&mut Watcher) -> Option<Classification>) -> bool {
        match (&self.resumed, self.after.as_mut()) {
            (None, _) => match feed(&mut self.first) {
                Some(c) if c.verdict == Verdict::Resumed => {
                    self.resumed = Some(c);
                    self.resumed_run = self.first.current_run().map(str::to_owned);
                    // The line that completed the proof may also open the next record (an
                    // ERROR header closing a cut progress report): the after-watcher reads it too.
                    let mut after = self.first.for_later_batches();
                    match feed(&mut after) {
                        Some(f) if is_failure(f.verdict) => {
                            self.decided = self.resumed.as_ref().map(|r| failed_after_resume(r, f));
                        }
                        // The line was the proof itself (a progress report on one line): a
                        // watcher that decided reads no more, so the next one starts fresh
                        // (and the proof's batch is not counted twice in the paths).
                        Some(_) => after = self.first.for_later_batches(),
                        None => {}
                    }
                    self.after = Some(after);
                }
                Some(c) => self.decided = Some(c),
                None => {}
            },
            (Some(_), Some(after)) => {
                let judged = feed(after);
                if after.current_run().is_some()
                    && after.current_run() != self.resumed_run.as_deref()
                {
                    // Our query started again (a later run in the same log): the earlier run's
                    // resume says nothing about it. Judge the new run from its start line on.
                    self.first = self
                        .after
                        .take()
                        .unwrap_or_else(|| Watcher::new(self.ctx.clone()));
                    self.resumed = None;
                    self.resumed_run = None;
                    return false;
                }
                if judged.is_some() {
                    // The paths this watcher saw, before it is replaced or the verdict fixed.
                    let later = after.exercised();
                    if let (Some(r), Some(l)) = (self.resumed.as_mut(), later) {
                        merge_paths(r, &l);
                    }
                }
                let Some(resumed) = &self.resumed else {
                    return false;
                };
                match judged {
                    Some(c) if is_failure(c.verdict) => {
                        self.decided = Some(failed_after_resume(resumed, c))
                    }
                    Some(_) => {
                        let next = after.for_later_batches();
                        self.after = Some(next);
                    }
                    None => {}
                }
            }
            (Some(_), None) => {}
        }
        self.decided.is_some()
    }

    /// The verdict once the whole log was read, saying so when the log holds several runs or
    /// queries ([`Classification::several_runs`]).
    pub fn finish(mut self) -> Classification {
        let judged_run = match (&self.decided, &self.resumed) {
            (Some(_), _) => self.decided_run.take(),
            (None, Some(_)) => self.resumed_run.clone().or_else(|| self.latest_run()),
            (None, None) => self.latest_run(),
        };
        let several = self.census.several(&self.ctx, judged_run);
        let mut c = self.verdict();
        c.several_runs = several;
        c
    }

    fn verdict(self) -> Classification {
        match (self.decided, self.resumed) {
            (Some(c), _) => c,
            (None, Some(mut resumed)) => match self.after {
                // A failure block at the very end of the log is closed by the end of input.
                Some(after) => {
                    if let Some(l) = after.exercised() {
                        merge_paths(&mut resumed, &l);
                    }
                    if !after.has_open_block() {
                        return caveat_unproven_paths(resumed);
                    }
                    let c = after.finish(Ended::EndOfInput);
                    if is_failure(c.verdict) {
                        failed_after_resume(&resumed, c)
                    } else {
                        caveat_unproven_paths(resumed)
                    }
                }
                None => caveat_unproven_paths(resumed),
            },
            (None, None) => self.first.finish(Ended::EndOfInput),
        }
    }
}

/// Verdicts that say the run failed (as opposed to progress judgements).
fn is_failure(v: Verdict) -> bool {
    !matches!(
        v,
        Verdict::Resumed | Verdict::StartedFresh | Verdict::Timeout | Verdict::NoOutcome
    )
}

/// Adds the paths later batches of the run showed to the resume's (see
/// [`Exercised::merge_later`]), and lists the merged paths in the evidence in place of the ones
/// the verdict listed at its batch: evidence, `exercised` and the remedy
/// ([`caveat_unproven_paths`]) then say the same (new-user pass, session 8: "state-updated NOT
/// run" in the evidence beside `state_updated: ran, batch 5`).
fn merge_paths(resumed: &mut Classification, later: &Exercised) {
    let listed = resumed
        .exercised
        .as_ref()
        .map(Exercised::evidence_lines)
        .unwrap_or_default();
    let merged = match &mut resumed.exercised {
        Some(e) => {
            e.merge_later(later);
            e
        }
        None => {
            let mut e = later.clone();
            // Only the first batch after the restart proves the state was read.
            e.state_loaded = None;
            resumed.exercised.insert(e)
        }
    };
    relist_paths(&mut resumed.evidence, &listed, merged.evidence_lines());
}

/// Replaces the path lines `listed` in `evidence` by `merged`, where the first of them stood
/// (at the end when none was listed).
fn relist_paths(evidence: &mut Vec<String>, listed: &[String], merged: Vec<String>) {
    let at = evidence
        .iter()
        .position(|l| listed.contains(l))
        .unwrap_or(evidence.len());
    evidence.retain(|l| !listed.contains(l));
    evidence.splice(at..at, merged);
    dedup_keep_order(evidence);
}

/// A log is judged on what it shows (no gate: it cannot be made to run longer), but its
/// `resumed` must not read as more than it proves: where a path the query has did not run in
/// the whole run the log holds (classify reads every batch after its verdict and merges the
/// paths they proved), the remedy says so first (breaker pass, session 6: "Safe to restart on
/// this version" beside "state-evicted NOT run").
fn caveat_unproven_paths(mut c: Classification) -> Classification {
    if c.verdict != Verdict::Resumed {
        return c;
    }
    let not_run: Vec<&str> = c
        .exercised
        .as_ref()
        .map(|e| e.not_run().into_iter().map(|(name, _)| name).collect())
        .unwrap_or_default();
    if !not_run.is_empty() {
        c.remedy = format!(
            "Not proven: {} did not run in this run of the query as far as the log goes (classify reads every batch of it; `rehearse run` keeps a restart going until every path ran, else resume-unproven). What the log shows: {}",
            not_run.join(", "),
            c.remedy
        );
    }
    c
}

fn failed_after_resume(resumed: &Classification, failure: Classification) -> Classification {
    let batch = resumed
        .first_batch_after_restart
        .map(|b| b.to_string())
        .unwrap_or_else(|| "-".into());
    let mut evidence = vec![format!(
        "the query resumed (batch {batch}, rule {}), then the same run failed:",
        resumed.rule
    )];
    evidence.extend(failure.evidence);
    Classification {
        evidence,
        first_batch_after_restart: resumed.first_batch_after_restart,
        start_offsets_match: resumed.start_offsets_match,
        // The failure was judged by a watcher that saw only the lines after the resume: what it
        // cannot know (Spark's "Resuming at" line; that this is a whole log, not an excerpt)
        // comes from the run that resumed.
        resuming_at: resumed.resuming_at,
        excerpt: resumed.excerpt,
        warnings: resumed.warnings.clone(),
        // The failure's watcher saw only the batches after the resume (its first is no proof
        // of a state load): the paths are the resume's, with those later batches merged.
        exercised: resumed.exercised.clone(),
        ..failure
    }
}

#[cfg(test)]
mod complete_log_tests {
    //! `classify` over a whole log: a failure of the same run after a proven resume wins.
    use serde_json::json;

    use crate::{classify, BatchId, TrialContext, Verdict};

    const START: &str = "26/11/30 13:10:15.454 INFO MicroBatchExecution: Starting q [id = 347f, runId = f932]. Use file:/c to store the query checkpoint.";
    const RESUMING: &str = "26/11/30 13:10:15.945 INFO MicroBatchExecution: Resuming at batch 4 with committed offsets {KafkaV2[Subscribe[t]]: {\"t\":{\"0\":42}}} and available offsets {KafkaV2[Subscribe[t]]: {\"t\":{\"0\":42}}}";
    const DATA_LOSS: &str = "26/11/30 13:13:34.338 ERROR MicroBatchExecution: Query q [id = 347f, runId = f932] terminated with error
java.lang.IllegalStateException: Partition t-0's offset was changed from 42 to 5, some data may have been missed.
\tat org.apache.spark.sql.kafka010.KafkaMicroBatchStream.reportDataLoss(KafkaMicroBatchStream.scala:1)
26/11/30 13:13:34.339 INFO MicroBatchExecution: Async log purge executor pool for query q [id = 347f, runId = f932] has been shutdown";

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

    #[test]
    fn a_jar_built_for_3_5_failing_on_4_0_in_its_own_class_names_the_rebuild() {
        let log =
            include_str!("../../../tests/fixtures/logs/jvm/java-built-for-3.5.3-on-4.0.1.log");
        let job = crate::JobFacts {
            artifact: "count-by-key_2.12-3.5.3.jar".into(),
            built_for: Some("3.5.3".into()),
            target: "4.0.1".into(),
            not_shipped: Vec::new(),
        };
        let with_job = TrialContext {
            job: Some(job.clone()),
            ..ctx()
        };
        let c = classify(log.lines(), std::iter::empty(), &with_job);
        assert_eq!(c.verdict, Verdict::EnvironmentError);
        assert_eq!(c.rule, "job-built-for-another-line");
        for needle in [
            "built for Spark 3.5 / Scala 2.12",
            "rebuild it for 4.0 / Scala 2.13",
            "[job.per_target]",
            "com.example.rehearse.CountByKey in count-by-key_2.12-3.5.3.jar",
        ] {
            assert!(c.remedy.contains(needle), "{needle}: {}", c.remedy);
        }
        assert!(
            c.evidence
                .iter()
                .any(|e| e.contains("at com.example.rehearse.CountByKey.main")),
            "{:?}",
            c.evidence
        );
        // Without the job's facts (`rehearse classify`), or with an artifact built for the
        // target's own line, the generic linkage rule stays.
        let generic = classify(log.lines(), std::iter::empty(), &ctx());
        assert_eq!(generic.rule, "jvm-linkage-error");
        let own = TrialContext {
            job: Some(crate::JobFacts {
                built_for: None,
                ..job.clone()
            }),
            ..ctx()
        };
        assert_eq!(
            classify(log.lines(), std::iter::empty(), &own).rule,
            "jvm-linkage-error"
        );
        let same_line = TrialContext {
            job: Some(crate::JobFacts {
                built_for: Some("4.0.0".into()),
                ..job.clone()
            }),
            ..ctx()
        };
        assert_eq!(
            classify(log.lines(), std::iter::empty(), &same_line).rule,
            "jvm-linkage-error"
        );
        // A linkage error thrown inside Spark only (a connector jar shadowing Spark's) is not the
        // job's code: the generic rule.
        let inside_spark = log.replace(
            "at com.example.rehearse.CountByKey.main(CountByKey.java:54)",
            "at org.apache.spark.sql.kafka010.KafkaSourceProvider.createSource(KafkaSourceProvider.scala:1)",
        );
        assert_eq!(
            classify(inside_spark.lines(), std::iter::empty(), &with_job).rule,
            "jvm-linkage-error"
        );
    }

    fn progress(batch: u64, start: u64, end: u64) -> String {
        format!(
            "26/11/30 13:09:12.149 INFO MicroBatchExecution: Streaming query made progress: {{\n  \"id\" : \"347f\",\n  \"runId\" : \"f932\",\n  \"batchId\" : {batch},\n  \"numInputRows\" : 8,\n  \"durationMs\" : {{\n    \"addBatch\" : 900\n  }},\n  \"stateOperators\" : [ ],\n  \"sources\" : [ {{\n    \"description\" : \"KafkaV2[Subscribe[t]]\",\n    \"startOffset\" : {{\n      \"t\" : {{\n        \"0\" : {start}\n      }}\n    }},\n    \"endOffset\" : {{\n      \"t\" : {{\n        \"0\" : {end}\n      }}\n    }},\n    \"numInputRows\" : 8\n  }} ],\n  \"sink\" : {{\n    \"description\" : \"console\"\n  }}\n}}"
        )
    }

    #[test]
    fn resumed_then_data_loss_on_a_later_batch_is_kafka_data_loss() {
        let log = format!(
            "{START}\n{RESUMING}\n{}\n{}\n{DATA_LOSS}",
            progress(4, 42, 50),
            progress(5, 50, 60)
        );
        let c = classify(log.lines(), std::iter::empty(), &ctx());
        assert_eq!(c.verdict, Verdict::KafkaDataLoss, "{c:#?}");
        assert_eq!(c.first_batch_after_restart, Some(BatchId(4)));
        assert_eq!(c.start_offsets_match, Some(true));
        assert!(
            c.evidence[0].contains("resumed (batch 4"),
            "{:?}",
            c.evidence
        );
        // A whole log with its start lines is not an excerpt, and Spark's resume line is kept
        // (the failure half was judged by a watcher that saw neither; both were lost).
        assert!(!c.excerpt, "{c:#?}");
        assert_eq!(c.resuming_at, Some(BatchId(4)));
    }

    #[test]
    fn resumed_with_a_clean_rest_of_the_log_stays_resumed() {
        let log = format!(
            "{START}\n{RESUMING}\n{}\n{}",
            progress(4, 42, 50),
            progress(5, 50, 60)
        );
        let c = classify(log.lines(), std::iter::empty(), &ctx());
        assert_eq!(c.verdict, Verdict::Resumed, "{c:#?}");
    }

    fn windowed(batch: u64, start: u64, state: (i64, i64, i64), wm: &str, sink: i64) -> String {
        let p = json!({
            "id": "347f", "runId": "f932", "batchId": batch, "numInputRows": 5,
            "durationMs": {"addBatch": 10},
            "eventTime": {"watermark": wm},
            "stateOperators": [{"numRowsTotal": state.0, "numRowsUpdated": state.1, "numRowsRemoved": state.2}],
            "sources": [{"startOffset": {"t": {"0": start}}, "numInputRows": 5}],
            "sink": {"description": "KafkaSink", "numOutputRows": sink}
        });
        format!(
            "26/11/30 13:09:12.149 INFO MicroBatchExecution: Streaming query made progress: {p}"
        )
    }

    /// Classify judges at the first batch after the restart but reads on: paths proved by
    /// later batches of the same run count (the window closes at batch 6), and only a path
    /// that ran in no batch of the log is said "Not proven".
    #[test]
    fn paths_proved_after_the_verdict_count_and_unproven_ones_are_said() {
        let ctx = TrialContext {
            checkpoint_watermark_ms: rehearse_base::text::parse_utc_millis(
                "2024-01-01T00:00:30.000Z",
            ),
            ..ctx()
        };
        let first = windowed(4, 42, (6, 2, 0), "2024-01-01T00:00:30.000Z", 0);
        let idle = windowed(5, 47, (8, 2, 0), "2024-01-01T00:00:30.000Z", 0);
        let closed = windowed(6, 52, (2, 0, 6), "2024-01-01T00:00:50.000Z", 6);
        let log = format!("{START}\n{RESUMING}\n{first}\n{idle}\n{closed}");
        let c = classify(log.lines(), std::iter::empty(), &ctx);
        assert_eq!(c.verdict, Verdict::Resumed, "{c:#?}");
        let e = c.exercised.as_ref().expect("paths");
        assert!(e.all_ran(), "{e:#?}");
        assert!(e
            .state_loaded
            .as_ref()
            .unwrap()
            .evidence
            .contains("batch 4"));
        assert!(e
            .state_evicted
            .as_ref()
            .unwrap()
            .evidence
            .contains("batch 6"));
        assert!(!c.remedy.starts_with("Not proven"), "{}", c.remedy);
        // The same log cut before the window closed: said, whatever the verdict's batch.
        let log = format!("{START}\n{RESUMING}\n{first}\n{idle}");
        let c = classify(log.lines(), std::iter::empty(), &ctx);
        assert_eq!(c.verdict, Verdict::Resumed);
        assert!(
            c.remedy
                .starts_with("Not proven: watermark-advanced, state-evicted, sink-wrote"),
            "{}",
            c.remedy
        );
        // A proof on one line, then the same run fails: the failure wins (the watcher that
        // re-read the proof line used to decide `resumed` on it and read nothing more).
        let log = format!("{START}\n{RESUMING}\n{first}\n{DATA_LOSS}");
        let c = classify(log.lines(), std::iter::empty(), &ctx);
        assert_eq!(c.verdict, Verdict::KafkaDataLoss, "{c:#?}");
    }
}

#[cfg(test)]
mod later_batches_tests {
    use crate::{classify, TrialContext, Verdict};

    /// New-user pass, session 13: a real 4.0.1 restart (driver log kept by `rehearse run`)
    /// whose batch 5 resumed at watermark 11:39:55 and batch 6 moved it to 11:49:25 and evicted
    /// 20 rows. `classify` without `--checkpoint` said "watermark-advanced NOT run … never moved
    /// past the first reported" beside "state-evicted ran": the watcher reading the batches after
    /// the proof took batch 6's own watermark as its base.
    #[test]
    fn a_watermark_that_moved_after_the_proof_is_seen_without_the_checkpoint() {
        let log = include_str!("../../../tests/fixtures/logs/4.0.1/windowed-batches-5-and-6.log");
        let c = classify(log.lines(), std::iter::empty(), &TrialContext::default());
        assert_eq!(c.verdict, Verdict::Resumed, "{c:?}");
        let e = c.exercised.clone().expect("paths");
        let w = e.watermark_advanced.expect("a watermark");
        assert!(w.ran, "{w:?}");
        assert!(w.evidence.contains("batch 6"), "{w:?}");
        assert!(!c.remedy.contains("Not proven"), "{}", c.remedy);
    }
}

#[cfg(test)]
mod complete_log_eof_tests {
    //! Found by the breaker: a failure that is the last thing in the log, and an ERROR header
    //! that closes a cut progress report, must still beat the resume proof before them.
    use serde_json::json;

    use crate::{classify, BatchId, TrialContext, Verdict};

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

    const PROGRESS: &str = "26/11/30 13:09:12.149 INFO MicroBatchExecution: Streaming query made progress: {\n  \"id\" : \"347f\",\n  \"runId\" : \"f932\",\n  \"batchId\" : 4,\n  \"numInputRows\" : 8,\n  \"durationMs\" : {\n    \"addBatch\" : 900\n  },\n  \"stateOperators\" : [ ],\n  \"sources\" : [ {\n    \"description\" : \"KafkaV2[Subscribe[t]]\",\n    \"startOffset\" : {\n      \"t\" : {\n        \"0\" : 42\n      }\n    },\n    \"endOffset\" : {\n      \"t\" : {\n        \"0\" : 50\n      }\n    },\n    \"numInputRows\" : 8\n  } ],\n  \"sink\" : {\n    \"description\" : \"console\"\n  }\n}";
    const FAILURE_AT_EOF: &str = "26/11/30 13:13:34.338 ERROR MicroBatchExecution: Query q [id = 347f, runId = f932] terminated with error
org.apache.spark.sql.execution.streaming.state.StateStoreKeySchemaNotCompatible: [STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE] Provided key schema does not match existing state key schema. SQLSTATE: XXKST
\tat org.apache.spark.sql.execution.streaming.state.StateSchemaCompatibilityChecker.check(StateSchemaCompatibilityChecker.scala:1)";

    #[test]
    fn failure_as_the_last_lines_of_the_log_beats_an_earlier_resume() {
        let log = format!("{PROGRESS}\n{FAILURE_AT_EOF}");
        let c = classify(log.lines(), std::iter::empty(), &ctx());
        assert_eq!(c.verdict, Verdict::StateStoreError, "{c:#?}");
    }

    #[test]
    fn a_job_dying_in_python_before_spark_started_is_an_environment_error() {
        let log = "Traceback (most recent call last):\n  File \"/sandbox/job/broken.py\", line 3, in <module>\n    raise RuntimeError(\"broken\")\nRuntimeError: broken";
        let c = classify(log.lines(), std::iter::empty(), &ctx());
        assert_eq!(c.verdict, Verdict::EnvironmentError, "{c:#?}");
        assert_eq!(c.rule, "job-failed-before-spark-started");
    }

    fn start(run: &str) -> String {
        format!("26/11/30 13:10:15.454 INFO MicroBatchExecution: Starting q [id = 347f, runId = {run}]. Use file:/c to store the query checkpoint.")
    }

    #[test]
    fn an_earlier_run_that_resumed_does_not_vouch_for_a_later_failing_run() {
        // Two runs concatenated: f932 resumed, then d00d started again and failed at EOF.
        let failure = FAILURE_AT_EOF.replace("f932", "d00d");
        let log = format!(
            "{}\n{PROGRESS}\n{}\n{failure}",
            start("f932"),
            start("d00d")
        );
        let c = classify(log.lines(), std::iter::empty(), &ctx());
        assert_eq!(c.verdict, Verdict::StateStoreError, "{c:#?}");
        // With no failure at all, the later run has no proof of its own.
        let log = format!("{}\n{PROGRESS}\n{}", start("f932"), start("d00d"));
        let c = classify(log.lines(), std::iter::empty(), &ctx());
        assert_ne!(c.verdict, Verdict::Resumed, "{c:#?}");
    }

    /// Issue 15: one driver running two queries, the checkpoint not given — said as two
    /// queries, with the fix (give the checkpoint, so its query is the one judged); with the
    /// checkpoint's id known, the note names it.
    #[test]
    fn two_queries_in_one_log_are_said_with_the_query_judged() {
        let other = "26/11/30 13:10:15.500 INFO MicroBatchExecution: Starting q2 [id = 9a0b, runId = 7777]. Use file:/d to store the query checkpoint.";
        let log = format!(
            "26/11/30 13:10:14.001 INFO SparkContext: Running Spark version 3.5.3\n{}\n{other}\n{PROGRESS}",
            start("f932")
        );
        let unknown = TrialContext::default();
        let c = classify(log.lines(), std::iter::empty(), &unknown);
        let several = c.several_runs.expect("two queries are said");
        assert_eq!(several.spark_starts, 1);
        assert_eq!(several.queries.len(), 2);
        assert!(!several.interleaved);
        assert!(
            several
                .note
                .starts_with("this log holds 2 queries, one driver running several queries")
                && several.note.contains("give --checkpoint"),
            "{}",
            several.note
        );
        let c = classify(log.lines(), std::iter::empty(), &ctx());
        let several = c.several_runs.expect("two queries are said");
        assert!(
            several.note.contains("of query 347f, the checkpoint's"),
            "{}",
            several.note
        );
        assert_eq!(several.judged_run.as_deref(), Some("f932"));
        // One start, one driver: nothing to say.
        let one = format!("{}\n{PROGRESS}", start("f932"));
        let c = classify(one.lines(), std::iter::empty(), &ctx());
        assert_eq!(c.several_runs, None);
    }

    #[test]
    fn progress_of_another_run_than_the_one_started_is_not_proof() {
        let log = format!("{}\n{PROGRESS}", start("d00d"));
        let c = classify(log.lines(), std::iter::empty(), &ctx());
        assert_ne!(c.verdict, Verdict::Resumed, "{c:#?}");
    }
}
