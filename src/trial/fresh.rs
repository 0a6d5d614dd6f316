//! The remedy rehearsed (issue 13 §4): a target's job started on a NEW EMPTY checkpoint with
//! `{starting_offsets}` (the Kafka offsets of the checkpoint's last committed batch), beside
//! the control over the same records. [`TrialRole::Fresh`](super::TrialRole::Fresh) runs it
//! like a target — the same copy (rebased if needed), so the seeding, the input digest and the
//! expected offsets match the control's — then sets the copy aside ([`set_aside`]) and gives
//! the job an empty `checkpoint/`.
//!
//! **What the watcher says.** Its context is the one an empty checkpoint gives
//! ([`context`]: no query id, no batch, no offsets). Spark logs "Starting new streaming query"
//! (MicroBatchExecution.populateStartOffsets: no offset log) and runs batch 0: the watcher's
//! `started-fresh` by rule `new-query-started` at that progress report — for a fresh run, the
//! expected start, never `resumed`. A failure after that line is also `started-fresh` (rule
//! `new-query-started`, its evidence naming the failure's verdict), but with no progress report
//! of batch 0; a failure before it keeps its own verdict. So the run counts as having run only
//! with a progress report of batch 0 ([`ran_batch_zero`]); anything else is a failed remedy.
//!
//! **The start proof** ([`start_proof`]), outside the watcher, after the driver stopped, from
//! the new checkpoint's files: every Kafka source's initial offsets (`sources/<n>/0`, written
//! from `startingOffsets` by `KafkaMicroBatchStream.getOrCreateInitialPartitionOffsets` when the
//! file does not exist yet; `KafkaSourceInitialOffsetWriter`, Spark 3.3–4.0) equal the
//! expected offsets of its topics, batch 0 is committed (`commits/0`), and, when fresh records
//! were seeded, the last committed batch ends past where the sources started.

use std::path::Path;

use super::control::{compare_with_control, Collected};
use crate::checkpoint::{kafka_offsets_json, Inspection, KafkaOffsets, SourceKind};
use crate::report::{FreshReport, StartProof, StartStatus, TrialReport};
use crate::sandbox::SandboxError;
use crate::scenario::Scenario;
use crate::verdict::{BatchId, BuiltinRule, Classification, JobFacts, TrialContext, Verdict};

/// Where the fresh run keeps the sandbox copy it is not given (beside the new `checkpoint/`).
pub const COPY_ASIDE: &str = "checkpoint-copy";

/// Moves the sandbox copy (`checkpoint/`, already rebased) to [`COPY_ASIDE`] and creates an
/// empty `checkpoint/` for the job. Only the sandbox is touched.
///
/// # Errors
/// The sandbox could not be written.
pub(super) fn set_aside(sandbox: &Path) -> Result<(), SandboxError> {
    let (copy, aside) = (sandbox.join("checkpoint"), sandbox.join(COPY_ASIDE));
    std::fs::rename(&copy, &aside).map_err(|source| SandboxError::Write {
        path: aside.clone(),
        source,
    })?;
    std::fs::create_dir(&copy).map_err(|source| SandboxError::Write { path: copy, source })
}

/// The watcher's context for a fresh run: what `TrialContext::from_inspection` gives for an
/// empty checkpoint (no query id, no batch, no committed offsets, no state), and the job.
/// Rows and paths are not required: its success is not a resume.
pub(super) fn context(job: JobFacts) -> TrialContext {
    TrialContext {
        job: Some(job),
        ..TrialContext::default()
    }
}

/// Whether the watcher saw the fresh run's batch 0 run on the empty checkpoint: `started-fresh`
/// by rule `new-query-started` at a progress report of batch 0 (see the module docs: the same
/// rule after a failure has no batch).
pub fn ran_batch_zero(verdict: Verdict, rule: &str, first_batch: Option<BatchId>) -> bool {
    verdict == Verdict::StartedFresh
        && rule == BuiltinRule::NewQueryRanBatchZero.id()
        && first_batch == Some(BatchId(0))
}

/// [`ran_batch_zero`] of the watcher's classification: whether to watch on until every seeded
/// record was read.
pub(super) fn ran(c: &Classification) -> bool {
    ran_batch_zero(c.verdict, &c.rule, c.first_batch_after_restart)
}

/// Which verdicts let a run in `role` read on until every seeded record was read (a control
/// runs): `resumed` for a target or the control, [`ran`] for a fresh run.
pub(super) fn reads_on_after(role: super::TrialRole) -> fn(&Classification) -> bool {
    match role {
        super::TrialRole::Fresh => ran,
        super::TrialRole::Target | super::TrialRole::Control => |c| c.verdict == Verdict::Resumed,
    }
}

/// Where the fresh run's first batch started, from its new checkpoint at `checkpoint`: see the
/// module docs. `expected` is the checkpoint's last committed Kafka offsets; `rows_expected`:
/// fresh records were seeded, so the run must have read some.
pub fn start_proof(checkpoint: &Path, expected: &KafkaOffsets, rows_expected: bool) -> StartProof {
    let mut proof = StartProof {
        status: StartStatus::Unproven,
        expected: kafka_offsets_json(expected),
        found: None,
        evidence: Vec::new(),
        reason: None,
    };
    let unproven = |mut p: StartProof, why: String| {
        p.reason = Some(why);
        p
    };
    let ins = match crate::checkpoint::inspect(checkpoint) {
        Ok(i) => i,
        Err(e) => return unproven(proof, format!("the new checkpoint could not be read: {e}")),
    };
    let kafka: Vec<_> = ins
        .sources
        .iter()
        .filter(|s| s.kind == SourceKind::Kafka)
        .collect();
    if kafka.is_empty() {
        return unproven(
            proof,
            "the new checkpoint's offset log names no Kafka source: the query never planned a batch from Kafka".into(),
        );
    }
    // Each source is checked on its own: merged, a second source reading the same topic from
    // `earliest` would be hidden by the first (breaker pass, session 8: a union of two readers
    // of one topic, one ignoring the placeholder, was `proven`).
    let mut found = KafkaOffsets::new();
    let mut diffs = Vec::new();
    for s in &kafka {
        let rel = format!("sources/{}/0", s.index);
        let Some(initial) = &s.initial_offsets else {
            return unproven(
                proof,
                format!("{rel} is missing or unreadable: the Kafka source wrote no initial offsets (KafkaSourceInitialOffsetWriter)"),
            );
        };
        proof
            .evidence
            .push(format!("{rel} line 2: {}", kafka_offsets_json(initial)));
        for (topic, parts) in initial {
            let one = |p: &std::collections::BTreeMap<_, _>| {
                kafka_offsets_json(&[(topic.clone(), p.clone())].into())
            };
            match expected.get(topic) {
                None => diffs.push(format!(
                    "source {} read {topic}, not a topic of the checkpoint",
                    s.index
                )),
                Some(e) if e != parts => diffs.push(format!(
                    "source {} started {topic} at {} instead of {}",
                    s.index,
                    one(parts),
                    one(e)
                )),
                Some(_) => {}
            }
            // Shown merged; a topic two sources started differently is already a difference.
            found.entry(topic.clone()).or_insert_with(|| parts.clone());
        }
    }
    for topic in expected.keys().filter(|t| !found.contains_key(*t)) {
        diffs.push(format!("{topic}: read by no Kafka source"));
    }
    proof.found = Some(kafka_offsets_json(&found));
    if !diffs.is_empty() {
        proof.status = StartStatus::Elsewhere;
        proof.reason = Some(format!(
            "the Kafka sources did not start where the checkpoint's last committed batch ended ({}): does the job give {{starting_offsets}} to every Kafka source's .option(\"startingOffsets\", …)?",
            diffs.join("; ")
        ));
        return proof;
    }
    if !checkpoint.join("commits/0").is_file() {
        return unproven(
            proof,
            "commits/0 does not exist: batch 0 was never committed".into(),
        );
    }
    proof.evidence.push("commits/0: batch 0 committed".into());
    if rows_expected {
        let last = ins.last_committed_batch.map_or(0, |b| b.0);
        let end = ins.committed_kafka_offsets();
        let read = end.iter().any(|(t, parts)| {
            parts
                .iter()
                .any(|(p, o)| found.get(t).and_then(|f| f.get(p)).is_some_and(|s| o > s))
        });
        if !read {
            return unproven(
                proof,
                format!("offsets/{last} (the last committed batch) ends where the sources started: the run read no record, so its output proves nothing"),
            );
        }
        proof
            .evidence
            .push(format!("offsets/{last}: {}", kafka_offsets_json(&end)));
    }
    proof.status = StartStatus::Proven;
    proof
}

/// The fresh run of `target` as the report shows it: whether it ran, its start proof (from
/// `t`), and its parity against the control (`control`) — compared only when it ran and its
/// start is proven. A `differs` is expected when the checkpoint (`inspection`) holds state
/// (the fresh start has none of it: reported with that reason, not failing); without state it
/// fails like a target's.
pub fn fresh_report(
    scenario: &Scenario,
    inspection: &Inspection,
    trial: TrialReport,
    t: &Collected,
    control: Option<(&TrialReport, &Collected)>,
) -> FreshReport {
    let ran = ran_batch_zero(trial.verdict, &trial.rule, trial.first_batch_after_restart);
    let start = t.start.clone().unwrap_or_else(|| StartProof {
        status: StartStatus::Unproven,
        expected: inspection.starting_offsets().unwrap_or_default(),
        found: None,
        evidence: Vec::new(),
        reason: Some("the new checkpoint was not read (the run ended before it)".into()),
    });
    let mut start = start;
    // A rebased copy: the proof is in the sandbox's offsets; production's startingOffsets are
    // the checkpoint's own (breaker pass, session 8: `{"0":0,"1":4}` could be copied as the
    // remedy for a checkpoint at 7,000,000,008).
    if let Some(production) = inspection.starting_offsets() {
        if production != start.expected {
            start.evidence.push(format!(
                "the sandbox copy was rebased, so these are the sandbox broker's offsets; in production the remedy starts at startingOffsets = {production} (the checkpoint's last committed batch)"
            ));
        }
    }
    let parity = control.map(|(c, cc)| {
        let not_ok = if !ran {
            Some(format!(
                "the fresh run did not run its first batch ({} by rule {})",
                trial.verdict, trial.rule
            ))
        } else if start.status != StartStatus::Proven {
            Some(format!(
                "the fresh run's start is {}: its output would not answer whether the remedy loses or repeats records",
                start.status
            ))
        } else {
            None
        };
        let mut p = compare_with_control(scenario, not_ok, t, c, cc);
        if p.status == crate::report::ParityStatus::Differs && !inspection.operators.is_empty() {
            p.may_differ = true;
            let why = format!(
                "expected: the checkpoint holds the state of {} stateful operator(s), and a fresh start has none of it, so aggregates, deduplication and joins begin anew",
                inspection.operators.len()
            );
            p.reason = Some(match p.reason.take() {
                Some(r) => format!("{why}; {r}"),
                None => why,
            });
        }
        p
    });
    let stopped_early = match &t.read_all {
        Some(Err(why)) if ran => Some(why.clone()),
        _ => None,
    };
    FreshReport {
        ran,
        stopped_early,
        verdict: trial.verdict,
        rule: trial.rule,
        evidence: trial.evidence,
        start,
        parity,
        seconds_to_verdict: trial.seconds_to_verdict,
        source_untouched: trial.source_untouched,
        sandbox: trial.sandbox,
        notes: trial.notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The new checkpoint a real `--fresh` run wrote on Spark 4.0.1 (tests/fixtures/fresh).
    fn fixture() -> tempfile::TempDir {
        let src =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fresh/size-of-null-4.0.1");
        let dir = tempfile::tempdir().unwrap();
        for rel in ["metadata", "offsets/0", "commits/0", "sources/0/0"] {
            let to = dir.path().join(rel);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(src.join(rel), to).unwrap();
        }
        dir
    }

    fn offsets(json: &str) -> KafkaOffsets {
        crate::checkpoint::KafkaSourceOffset::parse(json)
            .unwrap()
            .offsets()
    }

    #[test]
    fn a_start_at_the_committed_offsets_is_proven_by_the_files() {
        let dir = fixture();
        let p = start_proof(dir.path(), &offsets(r#"{"events":{"0":8,"1":8}}"#), true);
        assert_eq!(p.status, StartStatus::Proven, "{p:?}");
        assert_eq!(p.found.as_deref(), Some(r#"{"events":{"0":8,"1":8}}"#));
        assert_eq!(
            p.evidence,
            [
                r#"sources/0/0 line 2: {"events":{"0":8,"1":8}}"#,
                "commits/0: batch 0 committed",
                r#"offsets/0: {"events":{"0":12,"1":12}}"#,
            ]
        );
        assert!(p.reason.is_none());
    }

    #[test]
    fn a_start_at_other_offsets_is_elsewhere_and_names_the_topic() {
        let dir = fixture();
        // The checkpoint had stopped at 6/6: a job that ignores {starting_offsets} started at 8/8.
        let p = start_proof(dir.path(), &offsets(r#"{"events":{"0":6,"1":6}}"#), true);
        assert_eq!(p.status, StartStatus::Elsewhere, "{p:?}");
        let why = p.reason.unwrap();
        assert!(
            why.contains(
                r#"source 0 started events at {"events":{"0":8,"1":8}} instead of {"events":{"0":6,"1":6}}"#
            ),
            "{why}"
        );
        assert!(why.contains("{starting_offsets}"), "{why}");
        let p = start_proof(
            dir.path(),
            &offsets(r#"{"events":{"0":8,"1":8},"other":{"0":1}}"#),
            true,
        );
        assert_eq!(p.status, StartStatus::Elsewhere);
        assert!(p.reason.unwrap().contains("other: read by no Kafka source"));
    }

    /// Breaker pass, session 8: a job reading one topic through two Kafka sources, one given
    /// `{starting_offsets}` and one left at `earliest`, was `proven` — the merged offsets kept
    /// the last source's. Every source is checked on its own, in either order.
    #[test]
    fn a_second_source_of_the_same_topic_that_started_elsewhere_is_elsewhere() {
        let expected = offsets(r#"{"events":{"0":8,"1":8}}"#);
        for earliest_first in [false, true] {
            let dir = fixture();
            // A second source in the offset log, reading the same topic.
            let log = dir.path().join("offsets/0");
            let text = std::fs::read_to_string(&log).unwrap();
            std::fs::write(
                &log,
                format!("{text}\n{{\"events\":{{\"0\":12,\"1\":12}}}}"),
            )
            .unwrap();
            std::fs::create_dir_all(dir.path().join("sources/1")).unwrap();
            let (at_earliest, at_placeholder) = if earliest_first {
                ("0", "1")
            } else {
                ("1", "0")
            };
            std::fs::write(
                dir.path().join(format!("sources/{at_earliest}/0")),
                "\u{0}v1\n{\"events\":{\"0\":0,\"1\":0}}",
            )
            .unwrap();
            std::fs::write(
                dir.path().join(format!("sources/{at_placeholder}/0")),
                "\u{0}v1\n{\"events\":{\"0\":8,\"1\":8}}",
            )
            .unwrap();
            let p = start_proof(dir.path(), &expected, true);
            assert_eq!(
                p.status,
                StartStatus::Elsewhere,
                "earliest first {earliest_first}: {p:?}"
            );
            let why = p.reason.unwrap();
            assert!(
                why.contains(&format!(
                    r#"source {at_earliest} started events at {{"events":{{"0":0,"1":0}}}} instead of {{"events":{{"0":8,"1":8}}}}"#
                )),
                "{why}"
            );
        }
    }

    #[test]
    fn a_missing_sources_file_or_commit_leaves_the_start_unproven() {
        let expected = offsets(r#"{"events":{"0":8,"1":8}}"#);
        let dir = fixture();
        std::fs::remove_file(dir.path().join("sources/0/0")).unwrap();
        let p = start_proof(dir.path(), &expected, true);
        assert_eq!(p.status, StartStatus::Unproven, "{p:?}");
        assert!(p.reason.unwrap().contains("sources/0/0 is missing"));

        let dir = fixture();
        std::fs::remove_file(dir.path().join("commits/0")).unwrap();
        let p = start_proof(dir.path(), &expected, true);
        assert_eq!(p.status, StartStatus::Unproven, "{p:?}");
        assert!(p.reason.unwrap().contains("commits/0 does not exist"));

        let empty = tempfile::tempdir().unwrap();
        let p = start_proof(empty.path(), &expected, true);
        assert_eq!(p.status, StartStatus::Unproven, "{p:?}");
    }

    #[test]
    fn a_batch_that_read_nothing_proves_no_start_when_records_were_seeded() {
        let dir = fixture();
        // offsets/0 ending where the sources started: no record read.
        let text = std::fs::read_to_string(dir.path().join("offsets/0")).unwrap();
        std::fs::write(
            dir.path().join("offsets/0"),
            text.replace(
                r#"{"events":{"0":12,"1":12}}"#,
                r#"{"events":{"0":8,"1":8}}"#,
            ),
        )
        .unwrap();
        let expected = offsets(r#"{"events":{"0":8,"1":8}}"#);
        let p = start_proof(dir.path(), &expected, true);
        assert_eq!(p.status, StartStatus::Unproven, "{p:?}");
        assert!(p.reason.unwrap().contains("read no record"));
        assert_eq!(
            start_proof(dir.path(), &expected, false).status,
            StartStatus::Proven
        );
    }

    #[test]
    fn only_batch_zero_on_the_empty_checkpoint_counts_as_ran() {
        let rule = BuiltinRule::NewQueryRanBatchZero.id();
        assert!(ran_batch_zero(
            Verdict::StartedFresh,
            rule,
            Some(BatchId(0))
        ));
        // The same rule for a failure after "Starting new streaming query": no batch ran.
        assert!(!ran_batch_zero(Verdict::StartedFresh, rule, None));
        assert!(!ran_batch_zero(
            Verdict::StartedFresh,
            "batch-ids-restarted",
            Some(BatchId(0))
        ));
        assert!(
            !ran_batch_zero(Verdict::Resumed, "progress-after-restart", Some(BatchId(0))),
            "a fresh run is never a resume"
        );
    }

    fn scenario() -> Scenario {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("job.py"), "").unwrap();
        let text = "targets = [\"4.0.1\"]\nfresh = true\n[checkpoint.generate]\nspark = \"3.5.3\"\nbatches = 1\n[job]\nfile = \"job.py\"\nargs = [\"{checkpoint}\", \"{starting_offsets}\"]\n[[topics]]\nname = \"events\"\n";
        Scenario::parse(text, &dir.path().join("s.toml")).unwrap()
    }

    fn ran_trial() -> TrialReport {
        TrialReport {
            verdict: Verdict::StartedFresh,
            rule: BuiltinRule::NewQueryRanBatchZero.id().into(),
            first_batch_after_restart: Some(BatchId(0)),
            ..crate::report::test_helpers::resumed().trials.remove(0)
        }
    }

    fn collected(rows: &[&str], read_all: Result<&str, &str>) -> Collected {
        let dir = fixture();
        Collected {
            rows: vec![crate::trial::parity::RowSet {
                name: "file sink output/data".into(),
                rows: rows.iter().map(|r| r.to_string()).collect(),
                how: String::new(),
                unreadable: None,
            }],
            digest: Some(Ok(crate::kafka::InputDigest {
                records: "aaaa".into(),
                timestamps: "tttt".into(),
            })),
            read_all: Some(read_all.map(str::to_string).map_err(str::to_string)),
            start: Some(start_proof(
                dir.path(),
                &offsets(r#"{"events":{"0":8,"1":8}}"#),
                true,
            )),
        }
    }

    /// A fresh run that ran batch 0 but whose driver exited before it read every record (a
    /// later batch failed) is a failed remedy, not a pass with an unchecked parity.
    #[test]
    fn a_fresh_run_stopped_before_reading_every_record_fails() {
        let s = scenario();
        let ins = crate::checkpoint::inspect(fixture().path()).unwrap();
        let t = collected(
            &["{\"n\":1}"],
            Err("the driver exited first (batch 1 of 2)"),
        );
        let f = fresh_report(&s, &ins, ran_trial(), &t, None);
        assert!(f.ran && f.start.status == StartStatus::Proven, "{f:?}");
        assert!(f.failed(), "{f:?}");
        assert!(
            f.summary().contains("the driver exited first"),
            "{}",
            f.summary()
        );
        let t = collected(
            &["{\"n\":1}"],
            Ok("batch 2 started at the seeded end offsets"),
        );
        assert!(!fresh_report(&s, &ins, ran_trial(), &t, None).failed());
    }

    /// Breaker pass, session 8: after a rebase the proof is in the sandbox's offsets; the
    /// production startingOffsets are named beside it, and only then.
    #[test]
    fn a_rebased_fresh_start_names_productions_starting_offsets() {
        let s = scenario();
        // The production checkpoint ends at 12/12; the (rebased) sandbox expected 8/8.
        let ins = crate::checkpoint::inspect(fixture().path()).unwrap();
        let t = collected(&["{\"n\":1}"], Ok("idle"));
        let f = fresh_report(&s, &ins, ran_trial(), &t, None);
        let line = f
            .start
            .evidence
            .iter()
            .find(|l| l.contains("rebased"))
            .unwrap_or_else(|| panic!("{f:?}"));
        assert!(
            line.ends_with(r#"startingOffsets = {"events":{"0":12,"1":12}} (the checkpoint's last committed batch)"#),
            "{line}"
        );
        let mut same = t.clone();
        if let Some(start) = &mut same.start {
            start.expected = r#"{"events":{"0":12,"1":12}}"#.into();
        }
        let f = fresh_report(&s, &ins, ran_trial(), &same, None);
        assert!(
            !f.start.evidence.iter().any(|l| l.contains("rebased")),
            "{f:?}"
        );
    }

    /// Parity of a fresh run: `differs` fails without state, is expected (reported, not
    /// failing) when the checkpoint holds state; and a run that did not run is not compared.
    #[test]
    fn a_fresh_parity_difference_is_expected_only_with_state() {
        let s = scenario();
        let control = TrialReport {
            target_version: "3.5.3".into(),
            ..crate::report::test_helpers::resumed().trials.remove(0)
        };
        let c = collected(&["{\"n\":1,\"tags\":-1}"], Ok("settled"));
        let t = collected(&["{\"n\":1}"], Ok("settled"));
        let stateless = crate::checkpoint::inspect(fixture().path()).unwrap();
        let f = fresh_report(&s, &stateless, ran_trial(), &t, Some((&control, &c)));
        let p = f.parity.as_ref().unwrap();
        assert_eq!(p.status, crate::report::ParityStatus::Differs, "{p:?}");
        assert!(f.parity_failed() && !f.failed());
        let stateful = crate::checkpoint::inspect(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/checkpoints/3.5.3/kafka-agg"),
        )
        .unwrap();
        assert!(!stateful.operators.is_empty());
        let f = fresh_report(&s, &stateful, ran_trial(), &t, Some((&control, &c)));
        let p = f.parity.as_ref().unwrap();
        assert_eq!(p.status, crate::report::ParityStatus::Differs);
        assert!(p.may_differ && !f.parity_failed(), "{p:?}");
        assert!(
            p.reason
                .as_deref()
                .unwrap()
                .starts_with("expected: the checkpoint holds the state"),
            "{p:?}"
        );
        // The summary gives that reason, not a setting the user never wrote (new-user pass,
        // session 8: "(allowed: parity = \"may-differ\")").
        let summary = p.summary();
        assert!(
            summary.contains("(allowed: expected: the checkpoint holds the state")
                && !summary.contains("may-differ"),
            "{summary}"
        );
        let failed = TrialReport {
            verdict: Verdict::StateStoreError,
            rule: "state-schema-incompatible".into(),
            first_batch_after_restart: None,
            ..ran_trial()
        };
        let f = fresh_report(&s, &stateless, failed, &t, Some((&control, &c)));
        assert!(f.failed());
        let p = f.parity.unwrap();
        assert_eq!(p.status, crate::report::ParityStatus::NotChecked);
        assert!(p.reason.unwrap().contains("did not run its first batch"));
    }
}
